"""HTTP layer: one blueprint per resource, thin over ``service.games`` and ``service.store``."""
