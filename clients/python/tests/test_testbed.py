"""The Python client and the schedd_testbed fixture against the real daemon on a real private bus."""

import os
from datetime import datetime, timedelta, timezone

import pytest

from schedd import (Client, DaemonUnreachable, InvalidArgument, InvalidPush, NotFakeClock, RunawayTimers, Testbed,
                    span_microseconds)

UTC = timezone.utc


@pytest.mark.schedd(fake_clock="2026-12-24T08:00:00Z", tz="Europe/Berlin")
def test_push_advance_shown_and_history(schedd_testbed):
    outcome = schedd_testbed.schedule("run_1:dinner", "Dinner", at="2026-12-24T18:00", body="Table for 4")
    assert outcome == {"id": "run_1:dinner", "status": "scheduled", "next": "2026-12-24T17:00:00Z"}
    schedd_testbed.advance("8h")  # 17:00 in Berlin: not yet
    assert schedd_testbed.shown() == []
    assert schedd_testbed.advance("1h") == datetime(2026, 12, 24, 17, tzinfo=UTC)  # 18:00 in Berlin
    [shown] = schedd_testbed.shown()
    assert (shown.id, shown.title, shown.body, shown.late) == ("run_1:dinner", "Dinner", "Table for 4", 0)
    assert shown.due == datetime(2026, 12, 24, 17, tzinfo=UTC)
    assert [(r.id, r.event, r.late) for r in schedd_testbed.history()] == [("run_1:dinner", "fired", 0)]


@pytest.mark.schedd(fake_clock="2026-01-01T00:00:00Z")
def test_clock_next_delivers_one_due_instant_at_a_time(schedd_testbed):
    schedd_testbed.schedule("a", "A", at="2026-01-01T10:00:00Z")
    schedd_testbed.schedule("b", "B", at="2026-01-03T10:00:00Z")
    assert schedd_testbed.pending_count == 2
    assert schedd_testbed.next() == datetime(2026, 1, 1, 10, tzinfo=UTC)
    assert [n.id for n in schedd_testbed.shown()] == ["a"]
    assert schedd_testbed.pending_count == 1
    assert schedd_testbed.next() == datetime(2026, 1, 3, 10, tzinfo=UTC)
    assert [n.id for n in schedd_testbed.shown()] == ["a", "b"]
    assert schedd_testbed.next() == datetime(2026, 1, 3, 10, tzinfo=UTC), "nothing pending: the clock stays"


@pytest.mark.schedd(fake_clock="2026-01-01T00:00:00Z")
def test_run_until_idle_and_its_limit(schedd_testbed):
    for i, hour in enumerate([9, 3, 5]):
        schedd_testbed.schedule(f"once:{i}", "Once", at=f"2026-01-02T0{hour}:00:00Z")
    assert schedd_testbed.run_until_idle() == 3
    assert [n.id for n in schedd_testbed.shown()] == ["once:1", "once:2", "once:0"]
    assert schedd_testbed.pending_count == 0
    schedd_testbed.schedule("daily", "Every day", calendar="*-*-* 08:00:00 UTC")
    with pytest.raises(RunawayTimers, match="still 1 pending after 5 steps"):
        schedd_testbed.run_until_idle(limit=5)
    assert [n.id for n in schedd_testbed.shown()].count("daily") == 5


@pytest.mark.schedd(fake_clock="2026-01-01T00:00:00Z")
def test_order_is_due_instant_then_the_order_pushes_were_applied(schedd_testbed):
    for id in ["zeta", "alpha", "mid"]:
        schedd_testbed.schedule(id, id, at="2026-01-01T12:00:00Z")
    schedd_testbed.schedule("earlier", "earlier", at="2026-01-01T11:59:59Z")
    schedd_testbed.advance("1d")
    assert [n.id for n in schedd_testbed.shown()] == ["earlier", "zeta", "alpha", "mid"]


@pytest.mark.schedd(fake_clock="2026-01-01T00:00:00Z")
def test_set_is_a_jump_and_advance_is_time_passing(schedd_testbed):
    """clock set jumps over schedules (late: shown within grace, else missed); advance fires them on time."""
    schedd_testbed.schedule("tight", "Tight", at="2026-01-01T01:00:00Z", graceSeconds=60)
    schedd_testbed.schedule("loose", "Loose", at="2026-01-01T01:00:00Z", graceSeconds=7200)
    schedd_testbed.set_time("2026-01-01T02:00:00Z")
    assert [(n.id, n.late) for n in schedd_testbed.shown()] == [("loose", 3600)]
    assert {(r.id, r.event) for r in schedd_testbed.history()} == {("tight", "missed"), ("loose", "fired")}

    schedd_testbed.schedule("later", "Later", at="2026-01-01T05:00:00Z", graceSeconds=60)
    schedd_testbed.advance("3h")
    assert [(n.id, n.late) for n in schedd_testbed.shown()][-1] == ("later", 0)


@pytest.mark.schedd(fake_clock="2026-01-01T00:00:00Z")
def test_track_and_cancel(schedd_testbed):
    schedd_testbed.schedule("cart:remind", "Still there?", at="2026-01-01T20:00:00Z", cancelOn=["checkout"])
    schedd_testbed.schedule("run_9:a", "A", at="2026-01-01T20:00:00Z")
    schedd_testbed.schedule("run_9:b", "B", at="2026-01-01T20:00:00Z")
    assert schedd_testbed.track("checkout") == ["cart:remind"]
    assert sorted(schedd_testbed.cancel_run("run_9")) == ["run_9:a", "run_9:b"]
    assert schedd_testbed.cancel("unknown") == []
    # The tombstone blocks a late copy of the push.
    assert schedd_testbed.schedule("run_9:a", "A", at="2026-01-01T20:00:00Z")["status"] == "cancelled"
    schedd_testbed.advance("1d")
    assert schedd_testbed.shown() == []
    reasons = {r.id: r.reason for r in schedd_testbed.history() if r.event == "cancelled"}
    assert reasons == {"cart:remind": "event:checkout", "run_9:a": "run", "run_9:b": "run"}


@pytest.mark.schedd(fake_clock="2026-01-01T00:00:00Z")
def test_errors_mirror_the_dbus_errors(schedd_testbed):
    with pytest.raises(InvalidPush, match=r"bk\.local\.title: required") as rejected:
        schedd_testbed.push({"bk": {"local": {"id": "x", "at": "2026-01-02T00:00"}}})
    assert rejected.value.dbus_name == "org.schedd.Scheduler1.Error.InvalidPush"
    with pytest.raises(InvalidArgument, match="Mars/Olympus"):
        schedd_testbed.zone("Mars/Olympus")
    assert schedd_testbed.pending_count == 0, "a rejected push stores nothing"


def test_advancing_a_real_clock_daemon_is_a_clear_error(real_clock_daemon):
    with pytest.raises(NotFakeClock, match=r"real clock.*--fake-clock"):
        real_clock_daemon.clock_advance("1h")
    with pytest.raises(NotFakeClock):
        real_clock_daemon.clock_next()
    assert real_clock_daemon.clock_show()["fake"] is False


@pytest.mark.schedd(fake_clock="2026-01-01T00:00:00Z")
def test_signals_arrive_as_typed_values(schedd_testbed):
    schedd_testbed.schedule("s", "Signal me", at="2026-01-01T00:10:00Z")
    schedd_testbed.cancel("nothing-here")
    schedd_testbed.advance("10min")
    signals = schedd_testbed.signals()
    shown = [s for s in signals if s.name == "NotificationShown"]
    assert [(s.id, s.notification["title"]) for s in shown] == [("s", "Signal me")]


@pytest.mark.schedd(fake_clock="2026-01-01T00:00:00Z")
def test_pending_and_history_are_read_in_pages(schedd_testbed):
    pushes = [{"bk": {"local": {"id": f"bulk:{i:04}", "at": "2026-01-01T06:00:00Z", "title": "T"}}} for i in range(1500)]
    answers = schedd_testbed.client.push_batch(pushes)
    assert all(a[0]["status"] == "scheduled" for a in answers)
    assert schedd_testbed.pending_count == 1500  # two ListPage pages
    schedd_testbed.advance("6h")
    history = schedd_testbed.history()
    fired = [r.id for r in history if r.event == "fired"]
    assert fired == [f"bulk:{i:04}" for i in range(1500)]
    assert [r.id for r in schedd_testbed.history(limit=3)] == fired[-3:]


def test_stop_tears_everything_down():
    testbed = Testbed(fake_clock="2026-01-01T00:00:00Z")
    directory = os.path.dirname(testbed.shown_path)
    assert os.path.isdir(directory)
    testbed.stop()
    assert not os.path.exists(directory)
    with pytest.raises(DaemonUnreachable):
        Client(testbed.address)


def test_spans():
    assert span_microseconds("1d 6h") == 30 * 3600 * 10**6
    assert span_microseconds("1h30m") == 90 * 60 * 10**6
    assert span_microseconds("90") == 90 * 10**6
    assert span_microseconds(timedelta(minutes=2)) == 120 * 10**6
    with pytest.raises(ValueError):
        span_microseconds("soon")


def test_the_fixture_from_another_suite(pytester):
    """The plugin as an app's suite meets it: installed, no conftest, the marker configuring it."""
    pytester.makepyfile("""
        import pytest

        @pytest.mark.schedd(fake_clock="2026-03-07T12:00:00Z", tz="America/New_York")
        def test_gap(schedd_testbed):
            outcome = schedd_testbed.schedule("dst:gap", "In the gap", at="2026-03-08T02:30")
            assert outcome["next"] == "2026-03-08T07:30:00Z"

        @pytest.mark.parametrize("round", [1, 2])
        def test_each_test_gets_its_own(schedd_testbed, round):
            assert schedd_testbed.pending_count == 0
            schedd_testbed.schedule("x", "X", at="2030-01-01T00:00:00Z")
    """)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=3)


@pytest.mark.schedd(fake_clock="2026-01-01T00:00:00Z", app="org.example.Shop")
def test_apps_have_namespaces(schedd_testbed):
    assert schedd_testbed.client.identity["app"] == "org.example.Shop"
    schedd_testbed.schedule("run_1:a", "Shop", at="2026-01-01T10:00:00Z", cancelOn=["checkout"])
    with schedd_testbed.client_for("org.example.Mail") as mail:
        mail.push({"bk": {"local": {"id": "run_1:a", "at": "2026-01-01T10:00:00Z", "title": "Mail",
                                    "cancelOn": ["checkout"]}}})
        assert mail.track("checkout") == ["run_1:a"]
    schedd_testbed.advance("1d")
    assert [(n.id, n.title) for n in schedd_testbed.shown()] == [("run_1:a", "Shop")]


@pytest.mark.schedd(fake_clock="2026-01-01T00:00:00Z")
def test_sleep_folds_late_ones_per_app_and_never_an_alarm(schedd_testbed):
    for i in range(5):
        schedd_testbed.schedule(f"r:{i}", f"Reminder {i}", at=f"2026-01-01T00:1{i}:00Z")
    alarm = schedd_testbed.schedule("wake:1", "Get up", at="2026-01-01T00:10:00Z", alarm=True)
    status = schedd_testbed.status()
    assert alarm["wake"] == status["wake"]["capability"], (alarm, status["wake"])  # an alarm implies wake
    assert status["sleep"]["lastResume"] is None

    assert schedd_testbed.sleep("30min") == datetime(2026, 1, 1, 0, 30, tzinfo=UTC)

    shown = {n.id: n for n in schedd_testbed.shown()}
    assert set(shown) == {"schedd:folded", "wake:1"}, "one summary for the five, the alarm on its own"
    assert shown["schedd:folded"].title == "5 reminders while this computer was asleep"
    assert all(f"Reminder {i}" in shown["schedd:folded"].body for i in range(5))
    fired = [r for r in schedd_testbed.history() if r.event == "fired"]
    assert sorted(r.id for r in fired if r.folded) == [f"r:{i}" for i in range(5)], "each still recorded, folded"
    assert [r.folded for r in fired if r.id == "wake:1"] == [False]
    sleep = schedd_testbed.status()["sleep"]
    assert sleep["lastSleep"] == "2026-01-01T00:00:00Z" and sleep["lastResume"] == "2026-01-01T00:30:00Z", sleep


@pytest.mark.schedd(fake_clock="2026-01-01T00:00:00Z")
def test_errors_carry_member_rule_and_position_as_data(schedd_testbed):
    with pytest.raises(InvalidPush) as rejected:
        schedd_testbed.push({"bk": {"local": {"id": "x", "at": "2026-01-02T00:00"}}})
    assert (rejected.value.member, rejected.value.rule, rejected.value.position) == ("bk.local.title", "required", None)
    assert rejected.value.message == rejected.value.member + ": " + rejected.value.rule
    with pytest.raises(InvalidPush) as syntax:
        schedd_testbed.push('{"bk":')
    assert (syntax.value.member, syntax.value.position, syntax.value.syntax) == ("push", 6, "unexpected end of input")
    assert str(syntax.value) == "push: invalid JSON at byte 6: unexpected end of input"
