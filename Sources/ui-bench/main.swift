print("ui-bench: not written yet")
