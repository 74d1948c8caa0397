#!/usr/bin/env python3
"""byteclub's LiveText against pycrdt (Yrs, the Rust port of Yjs), both ways.

Run by LiveTextTests.PycrdtInteropTests:  pycrdt_interop.py INPUT OUTPUT

INPUT (JSON) holds byteclub's histories: for each, every update its replicas sent (hex, in a
causal order the test chose, some twice), the text they converged to, and one replica's whole
state. Each history's updates are applied to a fresh pycrdt document, and so is the whole state;
both must give byteclub's text. The same updates shuffled are applied too, and only reported:
pycrdt 0.14 applied updates that arrive before what they build on without waiting for it, and
ends with another text, even for its own updates.

Then this script makes its own histories ("seed", "count" in INPUT): 2 to 4 pycrdt documents
editing one text at once (inserts and deletes anywhere, some of them in the middle of another's
run, partial syncs between random pairs), every update each document sent recorded, and all
documents synced at the end. OUTPUT (JSON) gets those updates, the converged text, pycrdt's whole
state, and the results of the first half; the test applies them in byteclub.

With `trace` first (pycrdt_interop.py trace TRACE INPUT OUTPUT): a concurrent editing trace of
josephg/editing-traces (TRACE, gzipped JSON) instead. INPUT holds byteclub's updates of its replay
of the trace, in the trace's order; they are applied to one pycrdt document. Then pycrdt replays
the trace itself, one document per agent, and OUTPUT gets its text, the text byteclub's updates
gave, and pycrdt's updates (each transaction's, in the trace's order) for the test to apply.

Exit status: 0 when it ran (the checks' results are in OUTPUT), 2 when pycrdt is missing.
"""
import json
import random
import sys

try:
    from pycrdt import Doc, Text
except ImportError:
    print("pycrdt is missing: run `make deps` (pip install pycrdt)", file=sys.stderr)
    sys.exit(2)

ALPHABET = ["a", "b", "c", "x", "y", " ", "\n", "é", "中", "😀", "👍🏽"]


def byte_offset(text, index):
    """pycrdt's Text counts UTF-8 bytes; a Python index counts code points."""
    return len(text[:index].encode("utf-8"))


def check_byteclub(history, root):
    doc = Doc()
    text = doc.get(root, type=Text)
    for update in history["updates"]:
        doc.apply_update(bytes.fromhex(update))
    whole = Doc()
    whole_text = whole.get(root, type=Text)
    whole.apply_update(bytes.fromhex(history["state"]))
    shuffled = Doc()
    shuffled_text = shuffled.get(root, type=Text)
    for update in history["shuffled"]:
        shuffled.apply_update(bytes.fromhex(update))
    return {
        "text": str(text),
        "fromState": str(whole_text),
        "shuffledOk": str(shuffled_text) == history["text"],
        "ok": str(text) == history["text"] and str(whole_text) == history["text"],
        "state": doc.get_update().hex(),
    }


def pycrdt_history(rng, root, steps):
    count = rng.randint(2, 4)
    clients = set()
    while len(clients) < count:
        clients.add(rng.randint(1, 9) if rng.random() < 0.5 else rng.randint(1, 2**32))
    docs = []
    updates = []
    for client in sorted(clients, key=lambda _: rng.random()):
        doc = Doc(client_id=client)
        doc.get(root, type=Text)
        docs.append(doc)

    def edit(doc):
        text = doc.get(root, type=Text)
        current = str(text)
        before = doc.get_state()
        if rng.random() < 0.65 or not current:
            piece = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 4)))
            index = rng.randint(0, len(current))
            text.insert(byte_offset(current, index), piece)
        else:
            start = rng.randint(0, len(current) - 1)
            end = min(len(current), start + rng.randint(1, 5))
            with doc.transaction():
                del text[byte_offset(current, start):byte_offset(current, end)]
        # The update this edit sent: its new items and its deletes, as Yjs's update event has it.
        updates.append(doc.get_update(before).hex())

    for _ in range(steps):
        if rng.random() < 0.7:
            edit(rng.choice(docs))
        else:
            source, target = rng.sample(docs, 2)
            target.apply_update(source.get_update(target.get_state()))
    for target in docs:
        for source in docs:
            if source is not target:
                target.apply_update(source.get_update(target.get_state()))
    texts = {str(doc.get(root, type=Text)) for doc in docs}
    return {
        "updates": updates,
        "text": str(docs[0].get(root, type=Text)),
        "agreed": len(texts) == 1,
        "state": docs[0].get_update().hex(),
    }


def replay_trace(trace, root):
    """One pycrdt document per agent. Each agent's transactions follow its previous one, so a
    version is a count of transactions per agent: before a transaction, its agent's document gets
    the transactions its parents have that it lacks, in the trace's order."""
    agents = trace["numAgents"]
    docs = []
    for agent in range(agents):
        doc = Doc(client_id=agent + 1)
        doc.get(root, type=Text)
        docs.append(doc)
    have = [[0] * agents for _ in range(agents)]
    versions = []
    by_agent = [[] for _ in range(agents)]
    updates = []
    for txn in trace["txns"]:
        agent = txn["agent"]
        target = [0] * agents
        for parent in txn["parents"]:
            target = [max(a, b) for a, b in zip(target, versions[parent])]
        doc = docs[agent]
        for other in range(agents):
            for update in by_agent[other][have[agent][other]:target[other]]:
                doc.apply_update(update)
            have[agent][other] = max(have[agent][other], target[other])
        text = doc.get(root, type=Text)
        before = doc.get_state()
        with doc.transaction():
            for position, deleted, inserted in txn["patches"]:
                if deleted:
                    del text[position:position + deleted]
                if inserted:
                    text.insert(position, inserted)
        update = doc.get_update(before)
        by_agent[agent].append(update)
        updates.append(update)
        target[agent] += 1
        have[agent][agent] = target[agent]
        versions.append(target)
    final = Doc()
    final_text = final.get(root, type=Text)
    for update in updates:
        final.apply_update(update)
    return str(final_text), updates


def trace_main(trace_path, input_path, output_path):
    import gzip
    with gzip.open(trace_path, "rt", encoding="utf-8") as handle:
        trace = json.load(handle)
    with open(input_path, encoding="utf-8") as handle:
        request = json.load(handle)
    root = request["root"]
    theirs = Doc()
    theirs_text = theirs.get(root, type=Text)
    for update in request["updates"]:
        theirs.apply_update(bytes.fromhex(update))
    text, updates = replay_trace(trace, root)
    with open(output_path, "w", encoding="utf-8") as handle:
        json.dump({"byteclubText": str(theirs_text), "text": text, "endContent": trace["endContent"],
                   "updates": [update.hex() for update in updates]}, handle)
    print(f"pycrdt_interop: {len(trace['txns'])} transactions, pycrdt's replay "
          f"{'matches' if text == trace['endContent'] else 'DIFFERS FROM'} the trace's text")


def main():
    if sys.argv[1] == "trace":
        trace_main(*sys.argv[2:5])
        return
    with open(sys.argv[1], encoding="utf-8") as handle:
        request = json.load(handle)
    root = request["root"]
    checked = [check_byteclub(history, root) for history in request["histories"]]
    rng = random.Random(request["seed"])
    generated = [pycrdt_history(rng, root, request["steps"]) for _ in range(request["count"])]
    with open(sys.argv[2], "w", encoding="utf-8") as handle:
        json.dump({"checked": checked, "generated": generated}, handle)
    print(f"pycrdt_interop: checked {len(checked)} byteclub histories, made {len(generated)}")


if __name__ == "__main__":
    main()
