#!/usr/bin/env python3
"""A small stand-in for an external Oware engine, for tests/it/external.rs.

It speaks the protocol as Aalina reads it (uci/uciok, ucinewgame, isready/readyok,
`position startpos [moves AdFb]` with the moves as one word of letters, `go movetime N`,
`bestmove X`, quit) and plays a random legal Abapa move (grand slam allowed, capturing
nothing; the opponent fed). It checks what it is told: a move that is not the mover's, or not
legal, or a space inside the moves, ends it with a message on stderr and exit code 2.

Misbehaviours for the tests, as the first argument:
  null          answers `bestmove 0000`
  wrong-side    answers a pit of the side not to move
  quit-after N  exits after N moves
"""

import random
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "play"
quit_after = int(sys.argv[2]) if mode == "quit-after" else None
rng = random.Random(17)


def fail(message):
    print(f"fake engine: {message}", file=sys.stderr)
    sys.exit(2)


def legal(pits, mover):
    own = range(mover * 6, mover * 6 + 6)
    theirs_empty = all(pits[i] == 0 for i in range(6 - mover * 6, 12 - mover * 6))
    moves = []
    for i in own:
        if pits[i] == 0:
            continue
        # When the opponent has no seeds, only a move that reaches their row is allowed.
        if theirs_empty and pits[i] < (mover * 6 + 6) - i:
            continue
        moves.append(i)
    return moves


def sow(pits, mover, i):
    seeds, pits[i], j = pits[i], 0, i
    while seeds:
        j = (j + 1) % 12
        if j != i:
            pits[j] += 1
            seeds -= 1
    theirs = range(6 - mover * 6, 12 - mover * 6)
    taken, k = [], j
    while k in theirs and pits[k] in (2, 3):
        taken.append(k)
        k -= 1
    # A grand slam captures nothing.
    if taken and any(pits[t] for t in theirs if t not in taken):
        for t in taken:
            pits[t] = 0


moves_made = 0
pits, mover = [4] * 12, 0
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        print("id name fake-engine", flush=True)
        print("uciok", flush=True)
    elif words[0] == "isready":
        print("readyok", flush=True)
    elif words[0] == "position":
        if words[1:2] != ["startpos"]:
            fail(f"only startpos is known: {line!r}")
        pits, mover = [4] * 12, 0
        if len(words) > 2:
            if words[2] != "moves" or len(words) != 4:
                fail(f"the moves are one word of letters: {line!r}")
            for letter in words[3]:
                first = "A" if mover == 0 else "a"
                i = mover * 6 + ord(letter) - ord(first)
                if i not in legal(pits, mover):
                    fail(f"{letter} is not legal for {'South' if mover == 0 else 'North'}: {line!r}")
                sow(pits, mover, i)
                mover = 1 - mover
    elif words[0] == "go":
        if quit_after is not None and moves_made >= quit_after:
            sys.exit(0)
        moves_made += 1
        print("info depth 1 score cp 0", flush=True)
        choices = legal(pits, mover)
        if mode == "null" or not choices:
            print("bestmove 0000", flush=True)
            continue
        i = rng.choice(choices)
        if mode == "wrong-side":
            print(f"bestmove {'a' if mover == 0 else 'A'}", flush=True)
            continue
        print(f"bestmove {chr((ord('A') if mover == 0 else ord('a')) + i - mover * 6)}", flush=True)
    elif words[0] == "quit":
        break
