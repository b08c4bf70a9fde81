"""Activation: all six or none (Mishnah Makkot 2:4)."""

import math

import numpy as np
import pytest

from geo import (
    ALL_SIX,
    EAST_THREE,
    MOSES_THEN_JOSHUA,
    WEST_THREE,
    ParameterError,
    designate_three_more,
)
from geo.designation import as_timeline


def test_the_east_alone_does_not_protect():
    assert not MOSES_THEN_JOSHUA.active(5.0)
    assert MOSES_THEN_JOSHUA.designated_at(5.0) == EAST_THREE
    assert MOSES_THEN_JOSHUA.active(14.0)
    assert MOSES_THEN_JOSHUA.activation_time == 14.0


def test_vectorized_times():
    np.testing.assert_array_equal(
        MOSES_THEN_JOSHUA.active([0, 13.9, 14, 40]), [False, False, True, True]
    )


def test_a_set_is_designated_from_the_start():
    assert as_timeline(ALL_SIX).active(-1e9)
    assert not as_timeline(WEST_THREE).active()
    assert as_timeline(WEST_THREE).activation_time == math.inf


def test_timeline_from_plain_records():
    timeline = as_timeline(
        [{"t": 0, "cities": sorted(EAST_THREE)}, {"t": 3, "cities": sorted(WEST_THREE)}]
    )
    assert timeline.activation_time == 3
    assert timeline.designation_times()["hebron"] == 3


def test_unordered_timeline_is_refused():
    with pytest.raises(ParameterError, match=r"designated\[1\]\.t"):
        as_timeline([(5, EAST_THREE), (1, WEST_THREE)])


def test_unknown_city_is_refused():
    with pytest.raises(ParameterError, match="jerusalem"):
        as_timeline({"hebron", "jerusalem"})


def test_three_more_are_designated_after_the_six():
    # Deuteronomy 19:8-9: three more cities beside the six, when the borders are enlarged
    timeline = designate_three_more(MOSES_THEN_JOSHUA, ["a", "b", "c"], t=500.0)
    assert timeline.activation_time == 14.0  # the six still decide when refuge begins
    assert timeline.designation_times()["a"] == 500.0
    assert timeline.events[-1].source.startswith("Deuteronomy 19:8-9")
    with pytest.raises(ParameterError, match="three cities"):
        designate_three_more(MOSES_THEN_JOSHUA, ["a", "b"], t=500.0)
    with pytest.raises(ParameterError, match="three cities"):
        designate_three_more(MOSES_THEN_JOSHUA, ["a", "b", "hebron"], t=500.0)
    with pytest.raises(ParameterError, match="in order"):
        designate_three_more(MOSES_THEN_JOSHUA, ["a", "b", "c"], t=1.0)
