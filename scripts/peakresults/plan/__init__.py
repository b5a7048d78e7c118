"""run_all.sh's plan: its options, its steps, the adapters' paired jobs laid out as rounds, and
`adapters pair` by hand (layers.py: above adapters and pairs)."""
