"""The sign-in page's "Sign in with your school account" button, where a provider is configured."""

from django import template
from django.urls import reverse

from classrooms import oidc

register = template.Library()


@register.inclusion_tag("registration/_oidc_button.html", takes_context=True)
def oidc_button(context):
    if not oidc.configured():
        return {"shown": False}
    url = reverse("oidc_start")
    next_url = context.get("next")
    if next_url:
        from urllib.parse import urlencode

        url = f"{url}?{urlencode({'next': next_url})}"
    return {"shown": True, "url": url, "label": oidc.button_label()}
