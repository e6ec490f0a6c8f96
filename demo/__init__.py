"""The demo school (`make demo`), an app of its own on top of every other, since it fills them all.

school.py builds it (accounts, two classes, and weeks of play made through the platform's own
services: demo_school_build), data.py holds its data, clock.py the clock that dates what the
demo writes, simulate.py the children playing, alive.py its running class game kept playing
(apps.py connects it to games.signals.class_game_shown; tasks.py is the beat's sweep).
"""
