"""The claims the test provider vouches for: email, whether it is verified, and the names."""

from oauth2_provider.oauth2_validators import OAuth2Validator


class Validator(OAuth2Validator):
    # Which scope releases which claim (DOT filters the claims by the token's scopes).
    oidc_claim_scope = {
        **OAuth2Validator.oidc_claim_scope,
        "email": "email",
        "email_verified": "email",
        "given_name": "profile",
        "family_name": "profile",
    }

    def get_additional_claims(self, request):
        user = request.user
        return {
            "email": user.email,
            # The provider's users whose name starts "unverified" have an unconfirmed address.
            "email_verified": not user.username.startswith("unverified"),
            "given_name": user.first_name,
            "family_name": user.last_name,
        }
