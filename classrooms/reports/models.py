"""Progress report rows (built by Celery jobs from games.Play records)."""
