"""A load generator that plays like a school (issue 38): benchmarks/school_load.py runs it.

http.py     one pooled HTTP/1.1 client on asyncio streams (and the SSE reader)
seed.py     the school seeded once through the ORM: classes, children, class games, teachers
board.py    what a tablet reads on its board (version, cards, the moves its form offers)
tablet.py   a tablet: signs in as a child does, holds its stream, does what table.js does
school.py   the tables playing at a Poisson rate, the teachers' pages, the class boards
measure.py  CPU per process, PostgreSQL's and Redis's counters, around a window
"""
