"""The exiles of several runs lived as one: each run's draws and priests (exile/runs.py)."""

from __future__ import annotations

import numpy as np
import pytest

from refuge_map.simulation.exile.runs import RunStreams, Successions, starts_of
from refuge_map.simulation.priesthood import Succession


def _generators(seeds: list[int]) -> tuple[np.random.Generator, ...]:
    return tuple(np.random.default_rng(seed) for seed in seeds)


def test_a_stack_of_one_run_draws_from_the_run_s_own_generator() -> None:
    rng = np.random.default_rng(3)
    streams = RunStreams((rng,), starts_of([5]))
    assert streams.rows(np.arange(5)) is rng


def test_each_run_s_rows_get_the_numbers_the_run_alone_draws() -> None:
    # three runs of 4, 0 and 3 incidents; a call asks for rows 1, 3 of the first and 0, 2 of
    # the third, twice (shape (2, rows)), then once more: each run's generator, as alone
    starts = starts_of([4, 0, 3])
    streams = RunStreams(_generators([1, 2, 3]), starts)
    idx = np.array([1, 3, 4, 6])
    together = [
        streams.rows(idx).uniform(size=(2, 4)),
        streams.rows(idx).standard_exponential(4),
    ]
    alone = _generators([1, 2, 3])
    first = [alone[0].uniform(size=(2, 2)), alone[0].standard_exponential(2)]
    third = [alone[2].uniform(size=(2, 2)), alone[2].standard_exponential(2)]
    np.testing.assert_array_equal(together[0], np.hstack([first[0], third[0]]))
    np.testing.assert_array_equal(together[1], np.concatenate([first[1], third[1]]))
    # the empty run drew nothing: its generator is where a fresh one starts
    assert streams.rngs[1].uniform() == np.random.default_rng(2).uniform()


def _succession(died_y: float) -> Succession:
    """One high priest in office from year 0 until his death at `died_y`."""
    return Succession(
        {
            "office": np.array(["high_priest"]),
            "appointed_y": np.array([0.0]),
            "term_end_y": np.array([died_y]),
            "term_end": np.array(["died"]),
            "incident": np.array([-1]),
            "died_y": np.array([died_y]),
            "stood_down": np.array([False]),
            "age_at_appointment": np.array([40.0]),
        }
    )


def test_each_run_s_manslayers_are_released_by_their_own_run_s_priest() -> None:
    priests = Successions((_succession(5.0), _succession(9.0)), starts_of([2, 2]))
    idx = np.array([0, 1, 3])
    release_y = priests.release(idx, np.array([1.0, 6.0, 2.0]), war_priest="first_tanna")
    # run 0's priest dies at 5 (after that no high priest is in office: exile for life);
    # incident 3 is run 1's, whose priest dies at 9
    np.testing.assert_array_equal(release_y, [5.0, np.inf, 9.0])


def test_a_run_none_of_whose_rows_are_asked_draws_nothing() -> None:
    # the middle run has incidents, but the call asks only for rows of the first and the last
    streams = RunStreams(_generators([1, 2, 3]), starts_of([2, 3, 2]))
    drawn = streams.rows(np.array([0, 5, 6])).standard_exponential((2, 3))
    alone = _generators([1, 2, 3])
    expected = np.hstack(
        [alone[0].standard_exponential((2, 1)), alone[2].standard_exponential((2, 2))]
    )
    np.testing.assert_array_equal(drawn, expected)
    assert streams.rngs[1].uniform() == alone[1].uniform()  # untouched, as a fresh one


@pytest.mark.parametrize("idx", [[2, 0, 3], [0, 1, 4], [-1, 0, 2]])
def test_rows_out_of_order_or_of_no_run_are_refused_not_drawn_for(idx: list[int]) -> None:
    # out of order, a run's rows are no slice of them: it would get another run's numbers
    streams = RunStreams(_generators([1, 2]), starts_of([2, 2]))
    priests = Successions((_succession(5.0), _succession(9.0)), starts_of([2, 2]))
    with pytest.raises(ValueError, match="ascending incidents"):
        streams.rows(np.array(idx)).uniform(size=3)
    with pytest.raises(ValueError, match="ascending incidents"):
        priests.release(np.array(idx), np.zeros(3), war_priest="first_tanna")


@pytest.mark.parametrize("size", [None, 3, (4, 2), (2, 3)])
def test_draws_whose_last_axis_is_not_one_per_row_are_refused(size: object) -> None:
    # four rows asked (two of each run): a draw of another shape would be split wrongly
    streams = RunStreams(_generators([1, 2]), starts_of([2, 2]))
    with pytest.raises(ValueError, match="one per row"):
        streams.rows(np.arange(4)).uniform(size=size)  # type: ignore[arg-type]
