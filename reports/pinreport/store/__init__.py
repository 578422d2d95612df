"""The baseline store's read side: its files, its summary index, and what each command reads."""
