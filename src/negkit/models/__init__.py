"""Model backends behind the protocols of :mod:`negkit.models.base`; :func:`negkit.models.registry.load_model` builds one from a spec."""
