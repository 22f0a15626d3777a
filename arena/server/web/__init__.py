"""The routes of `arena serve`, one module per question: the public side (public.py), the doors: signing in, up
and out, and an author's own page (doors.py), uploads and their statuses (uploading.py), and a bot's private pages
(private.py); each handler states who may use it (guard.Access), and pages.py renders the templates."""
