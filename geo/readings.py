"""The geometric readings of the sources: each dispute the geography depends on, as plain data.

Light on purpose (no geometry imported): `refuge_map.opinions` gathers these with the law's and
the exile's disputes into the package's one registry. Each entry names the network option it
sets (`geo.load_network`), the question, what each choice holds, the default, why it is the
default, and the citation (RULES.md §4, §5, §10).
"""

from __future__ import annotations

from typing import Any, Final, Literal, get_args

#: The cubit in metres by the authority who holds it (RULES.md §10; secondary sources).
CUBIT_PRESETS: dict[str, float] = {
    "naeh": 0.48,  # R. Avraham Chaim Naeh, Shiurei Torah (1947): the default, the smaller cubit
    "chazon_ish": 0.576,  # Chazon Ish, Kuntres ha-Shiurim
    "kanievsky": 0.5767,  # R. Yaakov Kanievsky, Shiurin shel Torah (57 2/3 cm)
    "salant": 0.60,  # R. Shmuel Salant (reported)
}
DEFAULT_CUBIT = "naeh"

#: The breadth of the protecting belt in cubits, by the readings of Numbers 35:4-5
#: (Mishnah Sotah 5:3; RULES.md §4).
TECHUM_CUBIT_PRESETS: dict[str, float] = {
    "migrash": 1000.0,  # R. Akiva: the 1,000 cubits of open land of Num 35:4
    "sabbath": 2000.0,  # the Sabbath boundary of Num 35:5 (Mishnah Makkot 2:7): the default
    "levite_belt": 3000.0,  # R. Eliezer son of R. Yose the Galilean: 1,000 + 2,000 cubits
}
DEFAULT_TECHUM_CUBITS = "sabbath"

#: Shapes of the Sabbath boundary around a town, default first.
TechumMode = Literal["squared", "round"]
TECHUM_MODES: tuple[TechumMode, ...] = get_args(TechumMode)

#: Readings of "it all follows the boughs" (Mishnah Makkot 2:7; Makkot 12a-b; Rambam,
#: Rotzeach 8:11; RULES.md §5), for a person in a tree whose trunk and boughs lie apart.
BOUGH_OPINIONS: dict[str, str] = {
    "mishnah": "Mishnah Makkot 2:7: it all follows the boughs; where the boughs are decides",
    "rava": "Makkot 12a (Rava): a man in the boughs is where the boughs are; a man at the trunk "
    "is where the trunk stands",
    "rav_ashi": "Makkot 12b (Rav Ashi): follow the boughs as well; the tree protects if its trunk "
    "or its boughs are inside",
    "rambam": "Rambam, Rotzeach 8:11: under the leaves of an inside tree, or at the trunk of an "
    "outside tree whose boughs reach in, he is protected",
}
DEFAULT_BOUGH_OPINION: Final = "mishnah"

#: Which cities take the manslayer in (RULES.md §1): the ``refuges`` option of `geo.load_network`.
REFUGE_READINGS: dict[str, str] = {
    "six": "Numbers 35:13-14; Joshua 20:7-8: the six designated cities of refuge",
    "levitical": "Numbers 35:6; Makkot 10a (Abaye); Rambam, Rotzeach 8:9-10: all 48 Levitical "
    "cities; the 42 beside the six only for one who enters them intending refuge",
}
DEFAULT_REFUGE_READING: Final = "six"

#: The registry entry of the ``refuges`` option (``network.refuges`` of a scenario), in the
#: shape of `GEO_READINGS`.
REFUGES_READING: dict[str, Any] = {
    "question": "Which cities take the manslayer in: the six, or all 48 Levitical cities?",
    "holds": REFUGE_READINGS,
    "default": DEFAULT_REFUGE_READING,
    "why_default": "The six are the cities the Torah designates by name (Numbers 35:13-14; "
    "Joshua 20:7-8) and the only ones that take in a manslayer who did not mean to seek "
    "refuge; the 42 need his intent, a fact of the case that the user states.",
    "citation": "Numbers 35:6; Makkot 10a; Rambam, Rotzeach 8:9-10",
}

#: Which roads count (``roads_period`` of `geo.load_network`, ``network.roads_period`` of a
#: scenario), in the shape of `GEO_READINGS` (the choices are `geo.roads.ROADS_PERIODS`).
ROADS_PERIOD_READING: dict[str, Any] = {
    "question": "Which roads did the manslayer have: those of Joshua's time or of the Mishnah's?",
    "holds": {
        "all": "every leg of the road file, whatever its period",
        "iron_age": "the legs attested for the Iron Age, the time of Joshua's designation "
        "(Joshua 20)",
        "hellenistic_roman": "the legs of the Second Temple and Roman periods, the roads the "
        "Mishnah's court kept in repair (Mishnah Makkot 2:5; Makkot 10a)",
    },
    "default": "all",
    "why_default": "The scenarios do not say when they happen on the roads' timeline; every "
    "attested leg counts unless a scenario names a period (data/ROADS.md gives each leg's).",
    "citation": "Deuteronomy 19:3; Mishnah Makkot 2:5; data/ROADS.md",
}

#: The geometric disputes, by network option: question, holds, default, why_default, citation.
GEO_READINGS: dict[str, dict[str, Any]] = {
    "cubit": {
        "question": "How long is a cubit, in metres?",
        "holds": {
            "naeh": "R. Avraham Chaim Naeh (Shiurei Torah, 1947): 0.48 m",
            "chazon_ish": "Chazon Ish (Kuntres ha-Shiurim): 0.576 m",
            "kanievsky": "R. Yaakov Kanievsky (Shiurin shel Torah): 0.5767 m (57 2/3 cm)",
            "salant": "R. Shmuel Salant (reported): 0.60 m",
        },
        "default": DEFAULT_CUBIT,
        "why_default": "The smaller cubit, the figure the reference digest suggests (RULES.md "
        "§10), with 0.576 m as the alternative; all figures from secondary sources "
        "(unverified). A number in metres (0.3-0.8) is accepted too.",
        "citation": "RULES.md §10 (secondary sources)",
    },
    "techum": {
        "question": "What shape is the Sabbath boundary around a town?",
        "holds": {
            "squared": "the town is made 'like a square tablet, so it gains the corners' and "
            "the square set to the four directions (Mishnah Eruvin 5:1; Eruvin 56a)",
            "round": "a plain buffer of the town by the breadth of the boundary",
        },
        "default": "squared",
        "why_default": "The laws of the Sabbath limit square the town (Mishnah Eruvin 5:1); "
        "applying them to a city of refuge is a modelling choice, not an explicit ruling.",
        "citation": "Mishnah Eruvin 5:1; Eruvin 56a",
    },
    "techum_cubits": {
        "question": "How broad is the protecting boundary, in cubits?",
        "holds": {
            "migrash": "R. Akiva: the 1,000 cubits of open land (Numbers 35:4)",
            "sabbath": "the 2,000-cubit Sabbath boundary (Numbers 35:5; Mishnah Makkot 2:7)",
            "levite_belt": "R. Eliezer son of R. Yose the Galilean: 1,000 cubits of open land "
            "and 2,000 of fields and vineyards, 3,000 in all",
        },
        "default": DEFAULT_TECHUM_CUBITS,
        "why_default": "The texts read do not say which belt protects; the Koren translation "
        "and Touger's Rambam read the techum of Makkot 2:7 as the Sabbath boundary (RULES.md "
        "§4). A number of cubits (100-10000) is accepted too.",
        "citation": "Numbers 35:4-5; Mishnah Sotah 5:3; Mishnah Makkot 2:7",
    },
    "bough_opinion": {
        "question": "A man in a tree at the boundary, trunk and boughs on either side: is he "
        "protected?",
        "holds": BOUGH_OPINIONS,
        "default": DEFAULT_BOUGH_OPINION,
        "why_default": "The Mishnah's own words, 'it all follows the boughs'; the Gemara's and "
        "Rambam's readings refine it.",
        "citation": "Mishnah Makkot 2:7; Makkot 12a-b; Rambam, Rotzeach 8:11",
    },
    "refuges": REFUGES_READING,
    "roads_period": ROADS_PERIOD_READING,
}
