"""The weekly report email to parents: who gets it, its sending (once per parent and week), unsubscribe."""
