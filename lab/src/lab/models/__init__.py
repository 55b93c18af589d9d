"""Foundry model building in the lab: the spec 4.9 competition for classification and regression.

``lab.models.run.train`` is the entry point (docs/foundry-models.md); ``train_handler`` wraps it
as a job handler. Each algorithm trains in its own process (``runner``) on data prepared once by
``competition``; the winner is saved with its preprocessing pipeline by ``artifacts``.
"""
