from rest_framework.authentication import TokenAuthentication


class BearerTokenAuthentication(TokenAuthentication):
    """DRF's token authentication with the scheme word the API's clients send (SPEC §2)."""

    keyword = "Bearer"
