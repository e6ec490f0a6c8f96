"""The site's URLs plus a bare Django view, the yardstick every load benchmark measures beside."""

from django.http import HttpResponse
from django.urls import path

from kavet_site.urls import urlpatterns as site_urlpatterns


def bare(request):
    return HttpResponse(b"ok", content_type="text/plain")


urlpatterns = [path("bench/bare", bare, name="bench_bare"), *site_urlpatterns]
