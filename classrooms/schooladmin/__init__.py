"""The school admin's own pages: staff, classes, the school's settings, data, roster, rollover."""
