"""The explorer's controllers: plain classes the app composes, each with its own state, workers and messages.

A controller starts its thread workers on the app under its own group(s) and gets their state changes
through ``worker_changed`` (the app routes ``Worker.StateChanged`` by group: ``Controller.groups``). It
reaches the rest of the explorer only through the app's public surface (``log_``, ``diag``, the panes,
``jump_to``, ``notify``), never through another controller's state.
"""
