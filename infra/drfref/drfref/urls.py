from django.urls import include, path
from rest_framework.authtoken.views import obtain_auth_token
from rest_framework.routers import DefaultRouter

from comments.views import CommentViewSet

router = DefaultRouter()
router.register("comments", CommentViewSet, basename="comment")

urlpatterns = [
    path("api/v1/auth/login/", obtain_auth_token),
    path("api/v1/", include(router.urls)),
]
