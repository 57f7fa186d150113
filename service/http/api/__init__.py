"""HTTP layer: one blueprint per resource, thin over ``service.domain.games`` and
``service.store``."""
