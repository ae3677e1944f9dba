"""The op set, by family. Each primitive is an ``engine.op.Op``; the rest are compositions."""
