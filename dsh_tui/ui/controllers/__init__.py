"""The explorer's controllers: plain classes the explorer screen (screens/explorer.py) composes, each with
its own state, workers and messages.

A controller starts its thread workers on the screen under its own group(s) and gets their state changes
through ``worker_changed`` (the screen routes ``Worker.StateChanged`` by group: ``Controller.groups``). It
hears of a new session through ``session_changed`` (the screen publishes each one to all) and reaches the
rest of the explorer only through its port (ports.py: the session shown, ``notify``, ``jump_to``, its
workers, the few calls it alone makes), never another controller's state: a test checks it.
"""
