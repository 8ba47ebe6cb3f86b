"""Loads the users and comments of the API's demo fixture (infra/demo-data/demo.json) into the
reference's database, with the same ids, passwords and times, so that both sides answer the same list."""
import json

from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils.dateparse import parse_datetime

from comments.models import Comment, User


class Command(BaseCommand):
    help = "Load the users and comments of a demo fixture (infra/demo-data/demo.json)."

    def add_arguments(self, parser):
        parser.add_argument("fixture")

    @transaction.atomic
    def handle(self, *args, fixture, **options):
        with open(fixture, encoding="utf-8") as f:
            data = json.load(f)
        Comment.objects.all().delete()
        User.objects.all().delete()
        for u in data["users"]:
            user = User(
                id=u["id"],
                username=u["email"],
                email=u["email"],
                first_name=u.get("first_name") or "",
                last_name=u.get("last_name") or "",
                is_staff=u.get("is_staff", False),
                is_superuser=u.get("is_superuser", False),
                is_active=u.get("is_active", True),
            )
            user.set_password(u["password"])
            user.save()
        Comment.objects.bulk_create(
            Comment(
                id=c["id"],
                content_type=c["content_type"],
                object_id=c["object_id"],
                commenter_id=c["commenter_id"],
                tag=c.get("tag"),
                text=c["text"],
                parent_id=c.get("parent"),
                created_at=parse_datetime(c["created_at"]),
            )
            for c in data["comments"]
        )
        self.stdout.write(f"loaded {len(data['users'])} users and {len(data['comments'])} comments")
