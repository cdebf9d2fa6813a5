"""Column stores: compact, generic storage the scan and the diagnosis keep their rows in.

Textual-free, and domain-free: nothing here imports from the rest of the model (reading,
diagnosing, context, presenting, ...), so every layer above may use them.

* cells.py, interning.py: int and text cells, shared names.
* textcolumn.py, packed.py: text columns and the packed list of rows (columns once a run is long).
* offsets.py: ascending offsets (record starts) in about two bytes each.
* calltable.py: the model calls' usage samples, by call.
* pairtable.py: the pairs (call, command, approval) as columns.
* perturn.py, turnlist.py, turnparts.py: per-turn counts and ends, the timing's turns and their parts.
"""
