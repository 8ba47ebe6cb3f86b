from django_filters.rest_framework import DjangoFilterBackend
from rest_framework import filters, viewsets

from .filters import CommentFilter
from .models import Comment
from .pagination import CommentPagination
from .serializers import CommentSerializer


class CommentViewSet(viewsets.ReadOnlyModelViewSet):
    """The comment list and detail, by the book. The API's organization checks (SPEC §3) are left out:
    every caller sees every comment. A DRF that checked them would join the memberships too, so the
    reference's time is, if anything, a stricter bar than that service's."""

    queryset = Comment.objects.select_related("commenter")
    serializer_class = CommentSerializer
    pagination_class = CommentPagination
    filter_backends = [DjangoFilterBackend, filters.OrderingFilter]
    filterset_class = CommentFilter
    ordering_fields = ["created_at"]
    ordering = ["created_at", "id"]
