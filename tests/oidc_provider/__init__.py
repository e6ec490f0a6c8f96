"""A real OpenID Connect provider for the tests: a second Django process with django-oauth-toolkit.

It stands in for a school's Google Workspace, Entra ID or ENT: its own users, its own sign-in
page, its own session cookie, an RSA signing key of its own, discovery, JWKS, token and userinfo
endpoints. `tests/site/test_oidc_signin.py` starts it on a spare port (`serve.py`).
"""
