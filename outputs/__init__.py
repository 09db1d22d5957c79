"""What the build writes and reads back, below everything that writes: atomic files and
their digests (``outputs.files``), and the frames of an encoded clip (``outputs.video``).

``render/`` and ``slides/`` both use it; it imports neither, so data keeps flowing one way.
"""
