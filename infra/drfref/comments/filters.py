import django_filters

from .models import Comment


class CommentFilter(django_filters.FilterSet):
    content_type = django_filters.ChoiceFilter(choices=Comment.CONTENT_TYPES, required=True)
    object_id = django_filters.UUIDFilter(required=True)

    class Meta:
        model = Comment
        fields = ["content_type", "object_id", "tag"]
