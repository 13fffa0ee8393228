"""Probes the privacy tests share: data that must not be read, and every object a pickle holds."""

import io
import pickle


class Untouchable:
    """Stands for data that must not be read: every conversion or attribute access fails the test."""

    def __array__(self, *args, **kwargs):
        raise AssertionError("the data were read")

    def __len__(self):
        raise AssertionError("the data were read")

    def __iter__(self):
        raise AssertionError("the data were read")

    def __getitem__(self, key):
        raise AssertionError("the data were read")

    def __getattr__(self, name):
        raise AssertionError(f"the data were read (attribute {name!r})")


class Recorder(pickle.Pickler):
    """A pickler that records every object it saves (``persistent_id`` is asked about each one)."""

    def __init__(self):
        super().__init__(io.BytesIO(), protocol=pickle.HIGHEST_PROTOCOL)
        self.saved = []

    def persistent_id(self, obj):
        self.saved.append(obj)
        return None


def pickled_objects(obj) -> list:
    """Every object pickling ``obj`` saves (floats, arrays, generators, ...), in order."""
    recorder = Recorder()
    recorder.dump(obj)
    return recorder.saved
