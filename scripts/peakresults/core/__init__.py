"""The ground floor: the schema (columns read from common/harness/peak_columns.def), a results folder
read, and the facts of one row (physics, noise, the row that stands for a group). Stands on no
other package (layers.py)."""
