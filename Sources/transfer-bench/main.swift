print("transfer-bench: not written yet")
