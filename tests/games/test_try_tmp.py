import pytest, statistics
from games import services
from tests import factories
from tests.flow_clock import held_clock, practice_waiting

@pytest.mark.django_db
@pytest.mark.parametrize("n", range(4))
@pytest.mark.parametrize("mode", ["workers", "tablet"])
def test_try(classroom, n, mode, client):
    kid = factories.student(classroom=classroom, name="Anna")
    client.force_login(kid.user)
    seeds = iter(range(1000*n, 1000*n+100))
    def start():
        game, _ = services.practice_create(student=kid, bots=2, strength="easy", seed=next(seeds))
        return services.game_start(game=game)
    with held_clock() as clock:
        w = practice_waiting(start, clock, tablet=client if mode == "tablet" else None)
    print(f"\n{mode} turns={w.turns} games={w.games} waited={w.waited:.0f} med={statistics.median(w.waits):.1f} max={max(w.waits):.0f} windows={w.windows} out={w.windows_run_out} out_comp={w.windows_run_out_on_computers}")
