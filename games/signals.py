"""Hooks the games app offers the apps above it, so it never imports them."""

from django.dispatch import Signal

# A page showing a class game is being served (the class board): where no worker runs, an app
# above may move the game on here, as the page applies due moves (classgames: the demo's game).
# Sent with session=the ClassSession, now=the moment.
class_game_shown = Signal()
