"""Hooks the games app offers the apps above it, so it never imports them."""

from django.dispatch import Signal

# A page showing a class game is being served (the class board, the class game's live view):
# where no worker runs, an app above may move the game on here, as the page applies due moves
# (classrooms.demo: the demo's game), and answers how many moves it played. Sent with
# session=the ClassSession, now=the moment (None: now).
class_game_shown = Signal()

# A table of a class game has just ended (finished or abandoned), inside the transaction that
# ended it, the game row locked: the app above updates its class game in the same transaction
# (classgames: the class game is over once every table is). Sent with game_id, session_id.
game_over = Signal()

# games_erase_before has erased the games over before `before` (retention): the app above
# erases what hung from them, and answers the rows it erased (or, with dry_run, would erase)
# per model label (classgames: the class games left without a table). Sent with before,
# school (None for every school), dry_run.
games_erased = Signal()
