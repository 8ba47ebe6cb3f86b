from rest_framework import serializers

from .models import Comment, User


class CommenterSerializer(serializers.ModelSerializer):
    full_name = serializers.CharField(source="get_full_name", read_only=True)

    class Meta:
        model = User
        fields = ["id", "full_name", "email", "first_name", "last_name"]


class CommentSerializer(serializers.ModelSerializer):
    commenter = CommenterSerializer(read_only=True)

    class Meta:
        model = Comment
        fields = ["id", "content_type", "commenter", "created_at", "updated_at", "object_id", "tag", "text", "parent"]
