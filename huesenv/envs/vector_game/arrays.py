"""The few array operations the vectorised game needs, for numpy or torch from one code path.

Why a shim instead of two implementations: the game is written once against
the operations numpy and torch share (integer/boolean indexing, ``where``,
elementwise arithmetic, ``any``/``argmax`` along an axis); only creation,
casting, copying and random numbers differ, and those go through
:class:`ArrayOps`.  The environment layer never imports torch (the layers
contract forbids it): a caller who wants tensors passes the ``torch`` module
itself as ``xp`` (``HuesCuesVectorGame(..., xp=torch, device="cuda")``).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np


class ArrayOps:
    """Creation, casting and random numbers for one array namespace (``numpy`` or the ``torch`` module)."""

    def __init__(self, xp: Any = None, device: Any = None, seed: int | None = None) -> None:
        self.xp = np if xp is None else xp
        self.is_torch = getattr(self.xp, "__name__", "") == "torch"
        if not self.is_torch and self.xp is not np:
            raise ValueError(f"xp: expected numpy or the torch module, got {xp!r}")
        if not self.is_torch and device not in (None, "cpu"):
            raise ValueError(f"device: numpy arrays live on the CPU, got device={device!r}")
        self.device = device if self.is_torch else None
        self.bool = self.xp.bool
        self.int8 = self.xp.int8
        self.int32 = self.xp.int32
        self.int64 = self.xp.int64
        self.float32 = self.xp.float32
        self.pool = OutputPool() if not self.is_torch else None
        self.seed(seed)

    # -- randomness ---------------------------------------------------------------------
    def seed(self, seed: int | None) -> None:
        if self.is_torch:
            self.gen = self.xp.Generator(device=self.device or "cpu")
            if seed is None:
                self.gen.seed()
            else:
                self.gen.manual_seed(int(seed) % (2**63))
        else:
            self.gen = np.random.default_rng(seed)

    def random(self, shape: tuple[int, ...]) -> Any:
        """Uniform float32 numbers in [0, 1)."""
        if self.is_torch:
            return self.xp.rand(shape, generator=self.gen, device=self.device)
        return self.gen.random(shape, dtype=np.float32)

    def integers(self, high: Any, shape: tuple[int, ...]) -> Any:
        """Uniform integers in ``[0, high)`` (``high`` a scalar or an array broadcasting to ``shape``)."""
        u = self.random(shape)
        if self.is_torch:
            h = high if isinstance(high, int) else high.to(self.float32)
            return self.xp.minimum((u * h).to(self.int64), self.asarray(high, self.int64) - 1)
        return np.minimum((u * high).astype(np.int64), np.asarray(high) - 1)

    # -- creation and conversion --------------------------------------------------------
    def zeros(self, shape: tuple[int, ...] | int, dtype: Any) -> Any:
        if self.is_torch:
            return self.xp.zeros(shape, dtype=dtype, device=self.device)
        return np.zeros(shape, dtype=dtype)

    def empty(self, shape: tuple[int, ...] | int, dtype: Any) -> Any:
        if self.is_torch:
            return self.xp.empty(shape, dtype=dtype, device=self.device)
        return np.empty(shape, dtype=dtype)

    def full(self, shape: tuple[int, ...] | int, value: Any, dtype: Any) -> Any:
        if self.is_torch:
            size = (shape,) if isinstance(shape, int) else tuple(shape)
            return self.xp.full(size, value, dtype=dtype, device=self.device)
        return np.full(shape, value, dtype=dtype)

    def output(self, shape: tuple[int, ...], dtype: Any, fill: Any = None) -> Any:
        """A new array for a step's output (numpy: over a recycled buffer, :class:`OutputPool`), uninitialised
        or filled with ``fill``."""
        if self.pool is None:
            return self.empty(shape, dtype) if fill is None else self.full(shape, fill, dtype)
        a = self.pool.get(shape, dtype)
        if fill is not None:
            a.fill(fill)
        return a

    def arange(self, n: int) -> Any:
        if self.is_torch:
            return self.xp.arange(n, device=self.device)
        return np.arange(n)

    def asarray(self, x: Any, dtype: Any = None) -> Any:
        if self.is_torch:
            if isinstance(x, np.ndarray) and x.dtype == np.bool_ and dtype is None:
                dtype = self.bool
            if isinstance(x, (list, tuple)) or (isinstance(x, np.ndarray) and not x.flags.writeable):
                x = np.array(x)
            return self.xp.as_tensor(x, dtype=dtype, device=self.device)
        return np.asarray(x, dtype=dtype)

    def astype(self, x: Any, dtype: Any) -> Any:
        return x.to(dtype) if self.is_torch else x.astype(dtype)

    def copy(self, x: Any) -> Any:
        return x.clone() if self.is_torch else x.copy()

    def to_numpy(self, x: Any) -> np.ndarray:
        if self.is_torch:
            return x.detach().cpu().numpy()
        return np.asarray(x)

    def nonzero(self, mask: Any) -> Any:
        """Indices of the true entries of a 1-D mask."""
        if self.is_torch:
            return self.xp.nonzero(mask).reshape(-1)
        return mask.nonzero()[0] if mask.ndim == 1 else np.flatnonzero(mask)  # (the method: no wrapper calls)

    def clamp(self, x: Any, low: int | None = None, high: int | None = None) -> Any:
        """``x`` limited to ``[low, high]`` (either bound optional)."""
        if self.is_torch:
            return x.clamp(min=low, max=high)
        if low is not None:  # (np.maximum / np.minimum: np.clip's wrappers cost ~20 µs a call)
            x = np.maximum(x, low)
        return x if high is None else np.minimum(x, high)

    def take_flat(self, x: Any, flat: Any, out: Any = None) -> Any:
        """``x.reshape(-1)[flat]`` (numpy's ``take``, the fast gather; into ``out`` if given)."""
        if self.is_torch:
            return self.xp.take(x, flat, out=out) if out is not None else x.reshape(-1)[flat]
        return x.reshape(-1).take(flat, out=out, mode="clip" if out is not None else "raise")

    def put_flat(self, x: Any, flat: Any, value: Any) -> None:
        """``x.reshape(-1)[flat] = value`` (``x`` contiguous; numpy's ``put``, the fast scatter)."""
        if self.is_torch:
            x.reshape(-1)[flat] = value
        else:
            np.put(x, flat, value)

    def take_rows(self, table: Any, index: Any, out: Any = None) -> Any:
        """``table[index]`` along the first axis (numpy's ``take``; into ``out`` if given)."""
        if self.is_torch:
            return self.xp.index_select(table, 0, index, out=out) if out is not None else table[index]
        return table.take(index, axis=0, out=out, mode="clip" if out is not None else "raise")

    def where(self, cond: Any, a: Any, b: Any) -> Any:
        if self.is_torch:
            xp = self.xp
            a = a if isinstance(a, xp.Tensor) else xp.as_tensor(a, device=self.device)
            b = b if isinstance(b, xp.Tensor) else xp.as_tensor(b, device=self.device)
            return xp.where(cond, a, b)
        return np.where(cond, a, b)

    def masked_argmax(self, values: Any, mask: Any) -> Any:
        """Row-wise argmax of ``values`` over the true entries of ``mask`` (first on ties)."""
        neg = self.full((), float("-inf"), values.dtype) if self.is_torch else -np.inf
        return self.where(mask, values, neg).argmax(-1)


#: reference counts tell that only the pool holds a buffer on CPython with its GIL alone (elsewhere
#: ``sys.getrefcount`` is not an exact count: every output is then a fresh array)
_POOLING = sys.implementation.name == "cpython" and bool(getattr(sys, "_is_gil_enabled", lambda: True)())


class OutputPool:
    """Buffers of the arrays a step hands to its caller, each reused only once nothing else refers to it.

    Why: a step's outputs are megabytes at thousands of games (the ``(4096, 581)`` mask, the sparse
    observation); allocated afresh, glibc's malloc hands them back to the system and faults them in
    again every step (measured: 1,268 page faults and 2-3x the time per sparse self-play step in a fresh
    process).  The rule: :meth:`get` returns a *new* array object viewing a buffer that only the pool
    refers to.  Whatever a caller keeps of an earlier output (the array, a view of it, a ``memoryview``
    or ``torch.from_numpy`` tensor) refers to its buffer, so that buffer is not reused; a weak reference
    dies with the array object it names, so it never reaches a reused buffer.  Only a raw address
    (``a.ctypes.data``) outlives the array, as it outlives a freed one.
    """

    keep = 4  # buffers per (shape, dtype): outputs of one shape held at once by the game and a caller

    def __init__(self) -> None:
        self._buffers: dict[tuple[tuple[int, ...], np.dtype], list[np.ndarray]] = {}

    def get(self, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        """An array of ``shape`` and ``dtype`` over a buffer nobody else holds (contents stale)."""
        if not _POOLING:
            return np.empty(shape, dtype)
        buffers = self._buffers.setdefault((tuple(shape), np.dtype(dtype)), [])
        for i in range(len(buffers)):
            if sys.getrefcount(buffers[i]) <= _ALONE:
                return buffers[i].view()
        if len(buffers) >= self.keep:  # every kept one is held: the caller's references keep it alive
            del buffers[0]
        buffers.append(np.empty(shape, dtype))
        return buffers[-1].view()


#: what ``sys.getrefcount(buffers[i])`` reports for a buffer held by the pool's list alone (measured the
#: same way, once per process)
_ALONE = (lambda buffers: sys.getrefcount(buffers[0]))([np.empty(1)])
