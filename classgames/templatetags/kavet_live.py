"""The live class view's parts, from their one home (classgames.live, Jinja2) into its page.

{% load kavet_live %}
{% live_table %}   the section of table `t` (templates/classrooms/session_live.html's loop)
{% live_clock %}   the "updated" time of the status line
"""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from classgames import live

register = template.Library()


@register.simple_tag(takes_context=True)
def live_table(context) -> SafeString:
    ctx = {
        "t": context.get("t"),
        "session": context.get("session"),
        "strengths": context.get("strengths"),
        "oob": context.get("oob"),
    }
    # The page's one token (its context processor's, lazy: masked once), as every form of the
    # page printed it, rather than one made per table.
    token = context.get("csrf_token")
    if token is not None:
        ctx["csrf_token"] = token
    return live.render_table(ctx, context.get("request"))


@register.simple_tag(takes_context=True)
def live_clock(context) -> SafeString:
    return live.render_clock({"now": context.get("now"), "oob": context.get("oob")})
