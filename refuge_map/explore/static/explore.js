/* The explorer's page: forms generated from the package's schemas, maps, and questions sent to
   the server. No rule of the law or the geography lives here: every answer is the server's. */
"use strict";

var SCHEMA = null;
var BACKGROUND = {};
var panes = [];
var mode = "point";
var clicks = [];

function post(path, body) {
  return fetch("/api/" + path, {method: "POST", headers: {"Content-Type": "application/json"},
                                body: JSON.stringify(body)})
    .then(function (r) {
      return r.json().then(function (data) {
        if (!r.ok) { throw new Error(data.error); }
        return data;
      });
    });
}

function text(value) {
  var div = document.createElement("div");
  div.textContent = value === null || value === undefined ? "" : String(value);
  return div.innerHTML;
}

/* ---- forms from JSON schemas ------------------------------------------------------------ */

function resolve(schema, defs) {
  while (schema && schema.$ref) { schema = defs[schema.$ref.split("/").pop()]; }
  return schema;
}

function variants(schema) { return schema.anyOf || schema.oneOf || null; }

function buildField(name, schema, defs, required) {
  schema = resolve(schema, defs);
  var wrap = document.createElement("div");
  wrap.className = "form-field";
  var label = schema.title || name;
  var options = variants(schema);
  var nullable = false;
  var choices = [];
  var numeric = false;
  var object = null;
  if (options) {
    options.map(function (o) { return resolve(o, defs); }).forEach(function (o) {
      if (o.type === "null") { nullable = true; }
      else if (o.enum) { choices = choices.concat(o.enum); }
      else if (o.const !== undefined) { choices.push(o.const); }
      else if (o.type === "number" || o.type === "integer") { numeric = true; }
      else if (o.type === "boolean") { choices = choices.concat([true, false]); }
      else if (o.type === "object" && o.properties) { object = o; }
    });
  } else if (schema.enum) { choices = schema.enum; }
  else if (schema.type === "boolean") { choices = [true, false]; }
  else if (schema.type === "number" || schema.type === "integer") { numeric = true; }
  else if (schema.type === "object" && schema.properties) { object = schema; }

  if (schema.const !== undefined) {  /* a distribution's kind: sent only with its values */
    wrap.isConst = true;
    wrap.read = function () { return schema.const; };
    return wrap;
  }
  if (object && !choices.length && !numeric) {
    var box = document.createElement("div");
    box.className = "form-object";
    box.dataset.name = name;
    box.innerHTML = "<span>" + text(label) + "</span>";
    buildForm(box, object, defs);
    wrap.appendChild(box);
    wrap.read = function () { return readForm(box); };
    return wrap;
  }
  var input;
  if (choices.length && !numeric) {
    input = document.createElement("select");
    if (!required || nullable || schema.default !== undefined) {
      var shown = schema.default !== undefined && schema.default !== null ? ": " + schema.default : "";
      input.appendChild(new Option("(default" + shown + ")", ""));
    }
    choices.forEach(function (c) { input.appendChild(new Option(String(c), JSON.stringify(c))); });
  } else {
    input = document.createElement("input");
    input.type = "text";
    if (choices.length) {
      var list = document.createElement("datalist");
      list.id = "list-" + Math.random().toString(36).slice(2);
      list.innerHTML = choices.map(function (c) { return '<option value="' + text(c) + '">'; }).join("");
      wrap.appendChild(list);
      input.setAttribute("list", list.id);
    }
    input.placeholder = schema.default !== undefined ? String(schema.default) : "";
  }
  input.name = name;
  input.title = schema.description || "";
  var span = document.createElement("span");
  span.textContent = label;
  var labelEl = document.createElement("label");
  labelEl.appendChild(span);
  labelEl.appendChild(input);
  wrap.appendChild(labelEl);
  wrap.read = function () {
    if (input.value === "") { return undefined; }
    if (input.tagName === "SELECT") { return JSON.parse(input.value); }
    var n = Number(input.value);
    return numeric && input.value.trim() !== "" && !isNaN(n) ? n : input.value;
  };
  return wrap;
}

function buildForm(container, schema, defs) {
  var required = schema.required || [];
  container.fields = [];
  Object.keys(schema.properties || {}).forEach(function (name) {
    var field = buildField(name, schema.properties[name], defs, required.indexOf(name) >= 0);
    field.dataset.field = name;
    container.appendChild(field);
    container.fields.push([name, field]);
  });
}

function readForm(container) {
  var out = {};
  var given = false;
  container.fields.forEach(function (pair) {
    var value = pair[1].read();
    if (value !== undefined && !(typeof value === "object" && !Object.keys(value).length)) {
      out[pair[0]] = value;
      given = given || !pair[1].isConst;
    }
  });
  return given ? out : {};
}

/* ---- one map and its settings ------------------------------------------------------------ */

function Pane(index) {
  var self = this;
  this.el = document.createElement("section");
  this.el.className = "pane";
  this.el.id = "pane-" + index;
  this.el.innerHTML = '<details class="settings" open><summary>Opinions of map ' +
    (index + 1) + '</summary><div class="network-form"></div>' +
    '<label>Year on the designation timeline <input class="year" type="number" value="20">' +
    '</label></details><div class="map"></div>';
  document.getElementById("maps").appendChild(this.el);
  this.form = this.el.querySelector(".network-form");
  buildForm(this.form, SCHEMA.network, SCHEMA.defs);
  this.map = L.map(this.el.querySelector(".map"), {maxZoom: 18, minZoom: 6})
    .setView([31.9, 35.4], 8);
  L.control.scale().addTo(this.map);
  this.map.attributionControl.addAttribution(
    "Places: OpenBible.info (CC BY 4.0); Pleiades (CC BY). Hydrography: Natural Earth; " +
    "© OpenStreetMap contributors (ODbL). Roads: own compilation (CC BY 4.0)");
  this.map.createPane("background").style.zIndex = 250;  /* under the zones and roads */
  Object.keys(BACKGROUND).forEach(function (name) {
    L.geoJSON(BACKGROUND[name], {  /* not interactive: a click on the map is a question */
      pane: "background",
      interactive: false,
      style: function (f) { return Object.assign({className: "background"}, f.properties.style); }
    }).addTo(self.map);
  });
  this.layers = L.layerGroup().addTo(this.map);
  this.marks = L.layerGroup().addTo(this.map);
  this.coverage = L.layerGroup().addTo(this.map);
  this.el.querySelector(".settings").addEventListener("change", function () { self.redraw(); });
  this.map.on("click", function (e) { onMapClick(self, e.latlng); });
  this.redraw();
}

Pane.prototype.settings = function () {
  var year = Number(this.el.querySelector(".year").value);
  var out = {network: readForm(this.form), year: isNaN(year) ? 20 : year};
  var flight = document.getElementById("flight-form");
  if (flight.fields) { Object.assign(out, readForm(flight)); }
  return out;
};

Pane.prototype.cubitLabel = function () {
  var cubit = this.form.querySelector("[data-field=cubit] select, [data-field=cubit] input");
  var breadth = this.el.dataset.breadth;
  return (cubit && cubit.value ? cubit.value.replace(/"/g, "") + " cubit" : "default cubit") +
    (breadth ? " (boundary " + breadth + " m)" : "");
};

Pane.prototype.redraw = function () {
  var self = this;
  post("zones", {settings: this.settings()}).then(function (data) {
    self.layers.clearLayers();
    L.geoJSON(data.roads, {style: {color: SCHEMA.colors.road, weight: 2}, interactive: false})
      .addTo(self.layers);
    L.geoJSON(data.zones, {
      style: function (f) {
        return {color: SCHEMA.colors.zones[f.properties.techum] || SCHEMA.colors.other,
                weight: 2, fillOpacity: data.protects ? 0.3 : 0.05, className: "zone"};
      },
      onEachFeature: function (f, layer) {
        layer.bindTooltip(text(f.properties.name) + ": " + f.properties.techum + ", " +
          Math.round(f.properties.breadth_m) + " m");
      }
    }).addTo(self.layers);
    L.geoJSON(data.cities, {
      pointToLayer: function (f, latlng) {
        var color = SCHEMA.colors.sides[f.properties.side] || SCHEMA.colors.other;
        return L.circleMarker(latlng, {radius: 6, color: "#fff", weight: 2, fillColor: color,
                                        fillOpacity: 1, className: "city"})
          // offset: the name beside the dot (radius 6, border 2), not over it
          .bindTooltip(text(f.properties.name.split(" (")[0]), {permanent: true,
                                                                 direction: "right",
                                                                 offset: [8, 0]});
      }
    }).addTo(self.layers);
    self.zoneSummary = data.zones.features.map(function (f) {
      return Math.round(f.properties.breadth_m);
    });
    self.el.dataset.breadth = self.zoneSummary[0];
    self.el.dataset.protects = data.protects;
    self.el.dataset.ready = (Number(self.el.dataset.ready || 0) + 1).toString();
    if (document.getElementById("coverage").checked) { self.drawCoverage(); }
  }).catch(function (e) { showAnswer('<span class="error">' + text(e.message) + "</span>"); });
};

Pane.prototype.drawCoverage = function () {
  var self = this;
  post("coverage", {settings: this.settings(), cell_m: 10000}).then(function (data) {
    self.clearCoverage();
    data.cells.forEach(function (c) {  /* corners, P, hours, class */
      L.polygon(c[0], {stroke: false, fillOpacity: 0.5, className: "coverage-cell",
                       fillColor: data.classes[c[3]].color})
        .bindTooltip("P(reach asylum alive) " + (c[1] === null ? "none" : c[1].toFixed(2)))
        .addTo(self.coverage);
    });
    self.coverageLegend = coverageLegend(data.classes).addTo(self.map);
    self.el.dataset.coverage = data.cells.length;
  }).catch(function (e) { showAnswer('<span class="error">' + text(e.message) + "</span>"); });
};

Pane.prototype.clearCoverage = function () {
  this.coverage.clearLayers();
  if (this.coverageLegend) { this.coverageLegend.remove(); this.coverageLegend = null; }
};

/* The key of the coverage cells' colours, as the server gives the classes. */
function coverageLegend(classes) {
  var legend = L.control({position: "bottomright"});
  legend.onAdd = function () {
    var box = L.DomUtil.create("div", "coverage-legend");
    box.innerHTML = "<b>P(reach asylum alive)</b>" + classes.map(function (k) {
      return '<div><span class="swatch" style="background:' + text(k.color) + '"></span>' +
        text(k.label) + "</div>";
    }).join("");
    return box;
  };
  return legend;
}

/* ---- the questions ----------------------------------------------------------------------- */

function showAnswer(html) { document.getElementById("answer").innerHTML = html; }

function onMapClick(pane, latlng) {
  var point = [Number(latlng.lng.toFixed(6)), Number(latlng.lat.toFixed(6))];
  if (mode === "point") {
    pane.marks.clearLayers();
    L.circleMarker(latlng, {radius: 7, color: "#000", weight: 2, fillOpacity: 0})
      .addTo(pane.marks);
    ask(pane, point, null);
    return;
  }
  clicks.push(point);
  L.circleMarker(latlng, {radius: 5, color: "#000"}).addTo(pane.marks);
  if (mode === "tree" && clicks.length === 2) {
    ask(pane, clicks[0], clicks[1]);
    clicks = [];
  } else if (mode === "flight" && clicks.length === 2) {
    flightPoints = {pane: pane, place: clicks[0], kin_home: clicks[1]};
    document.getElementById("run-flight").disabled = false;
    document.getElementById("flight-box").open = true;
    showAnswer("Killing at " + clicks[0].join(", ") + "; the kin's home at " +
               clicks[1].join(", ") + ". Run the flight.");
    clicks = [];
  } else {
    showAnswer(mode === "tree" ? "Now click where the boughs hang." :
               "Now click the home of the victim's kin (the avenger sets out from there).");
  }
}

var flightPoints = null;

function ask(pane, point, bough) {
  post("where", {settings: pane.settings(), point: point, bough: bough}).then(function (a) {
    /* rule_html and city_popup are the server's escaped HTML, citations linked */
    var html = '<span class="' + (a.protected ? "protected" : "unprotected") + '">' +
      (a.protected ? "Protected" : "Not protected") + "</span>" +
      (a.city ? " in the zone of " + text(a.city) + " (" + text(a.zone) + ")" : "") +
      (a.city ? " under the " + text(pane.cubitLabel()) : "") +
      '<br>Rule: <span class="rule">' + a.rule_html + "</span>";
    if (a.tree) { html += "<br>Tree (" + text(a.tree.opinion) + "): " + a.tree.rule_html; }
    if (a.city_popup) {
      html += '<details class="city-card"><summary>About ' + text(a.city) + "</summary>" +
        a.city_popup + "</details>";
    }
    showAnswer(html);
  }).catch(function (e) { showAnswer('<span class="error">' + text(e.message) + "</span>"); });
}

function runFlight() {
  if (!flightPoints) { return; }
  var pane = flightPoints.pane;
  var n = Number(document.getElementById("replications").value);
  var box = document.getElementById("flight-result");
  box.textContent = "running...";
  post("flight", {settings: pane.settings(), place: flightPoints.place,
                  kin_home: flightPoints.kin_home, replications: n}).then(function (r) {
    box.innerHTML = "P(reach asylum alive) = <b class=\"p-asylum\">" + r.p_asylum.toFixed(2) +
      "</b> (95% interval " + r.interval[0].toFixed(2) + "-" + r.interval[1].toFixed(2) +
      "; " + r.reached + " of " + r.replications + ")";
    animate(pane, r.tracks);
  }).catch(function (e) { box.innerHTML = '<span class="error">' + text(e.message) + "</span>"; });
}

function animate(pane, tracks) {
  var lines = tracks.map(function (t) {
    return L.polyline([], {color: SCHEMA.colors.roles[t.role] || SCHEMA.colors.other, weight: 3,
                           className: "track-" + t.role})
      .addTo(pane.marks);
  });
  var end = Math.max.apply(null, tracks.map(function (t) { return t.hours[t.hours.length - 1]; }));
  var clock = 0;
  var timer = setInterval(function () {
    clock = Math.min(end, clock + end / 40);
    tracks.forEach(function (t, i) {
      var shown = t.latlon.filter(function (_, k) { return t.hours[k] <= clock; });
      lines[i].setLatLngs(shown);
    });
    var h = Math.floor(clock), m = Math.round((clock - h) * 60);
    document.getElementById("flight-result").dataset.clock = clock;
    pane.el.dataset.animated = "yes";
    if (clock >= end) { clearInterval(timer); }
    showAnswer("Flight: " + h + " h " + (m < 10 ? "0" : "") + m + " min after the killing");
  }, 50);
}

function verdictCell(ruling) {
  /* An undetermined verdict names the facts it asks for and the verdict under each answer. */
  var html = '<span class="verdict verdict-' + text(ruling.verdict) + '">' +
    text(ruling.verdict.replace("_", " ")) + "</span>";
  if (ruling.asks.length) {
    html += '<div class="asks">The case does not say: <b>' +
      ruling.asks.map(text).join("</b>, <b>") + "</b>. Under each answer:</div><ul class=\"alternatives\">" +
      ruling.alternatives.map(function (alt) {
        return "<li>" + Object.keys(alt.facts).map(function (k) {
          return text(k) + " = " + text(JSON.stringify(alt.facts[k]));
        }).join(", ") + ": " + text(alt.verdict.replace("_", " ")) + "</li>";
      }).join("") + "</ul>";
  }
  return html;
}

function traceList(ruling) {
  return "<details><summary>why, with sources</summary><p>" + text(ruling.reason) + "</p><ol>" +
    ruling.trace.map(function (s) {
      return "<li>" + text(s.rule) + ": " + text(s.finding) + " <i>" + s.citation_html + "</i></li>";
    }).join("") + "</ol></details>";
}

function judge() {
  var facts = readForm(document.getElementById("case-form"));
  var out = document.getElementById("verdicts");
  post("judge", {case: facts}).then(function (r) {
    var html = "";
    Object.keys(r.by_dispute).forEach(function (key) {
      var sages = r.by_dispute[key];
      html += '<table class="side-by-side" data-dispute="' + text(key) + '"><caption>' +
        text(key) + ": each sage, other disputes at their defaults</caption><tr>" +
        sages.map(function (s) {
          return '<th data-sage="' + text(s.sage) + '">' + text(s.sage) + "<br><small>" +
            text(s.holds) + "</small></th>";
        }).join("") + "</tr><tr>" +
        sages.map(function (s) {
          return '<td data-sage="' + text(s.sage) + '">' + verdictCell(s) + traceList(s) + "</td>";
        }).join("") + "</tr></table>";
    });
    if (!r.rulings[0] || !Object.keys(r.rulings[0].opinions).length) {
      html += '<p class="single">' + verdictCell(r.rulings[0]) + traceList(r.rulings[0]) + "</p>";
    }
    html += '<details><summary>Every combination of the disputes (' + r.rulings.length +
      ')</summary><table class="verdicts"><tr><th>opinions</th><th>verdict</th></tr>';
    r.rulings.forEach(function (ruling) {
      var who = Object.keys(ruling.opinions).map(function (k) {
        return text(k) + ": " + text(ruling.opinions[k]);
      }).join("<br>") || "(no dispute bears)";
      html += "<tr><td>" + who + '</td><td class="verdict">' + verdictCell(ruling) +
        traceList(ruling) + "</td></tr>";
    });
    out.innerHTML = html + "</table></details>";
  }).catch(function (e) { out.innerHTML = '<span class="error">' + text(e.message) + "</span>"; });
}

function start() {
  Promise.all(["/api/schema", "/api/background"].map(function (path) {
    return fetch(path).then(function (r) { return r.json(); });
  })).then(function (both) {
    var schema = both[0];
    BACKGROUND = both[1];
    SCHEMA = {network: schema.network, defs: schema.defs, case: schema.case,
              colors: schema.colors};
    var flightSchema = {properties: schema.flight, required: []};
    buildForm(document.getElementById("flight-form"), flightSchema, schema.defs);
    buildForm(document.getElementById("case-form"), schema.case, schema.case.$defs || {});
    panes.push(new Pane(0));
    document.querySelectorAll("#mode input").forEach(function (r) {
      r.addEventListener("change", function () { mode = r.value; clicks = []; });
    });
    document.getElementById("run-flight").addEventListener("click", runFlight);
    document.getElementById("judge").addEventListener("click", judge);
    document.getElementById("compare").addEventListener("change", function (e) {
      if (e.target.checked && panes.length === 1) { panes.push(new Pane(1)); }
      else if (!e.target.checked && panes.length === 2) {
        panes.pop().el.remove();
      }
      panes.forEach(function (p) { p.map.invalidateSize(); });
    });
    document.getElementById("coverage").addEventListener("change", function (e) {
      panes.forEach(function (p) {
        if (e.target.checked) { p.drawCoverage(); } else { p.clearCoverage(); }
      });
    });
    document.body.dataset.ready = "yes";
  });
}

start();
