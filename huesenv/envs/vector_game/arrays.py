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
        self.int16 = self.xp.int16
        self.int32 = self.xp.int32
        self.int64 = self.xp.int64
        self.float32 = self.xp.float32
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
        return np.flatnonzero(mask)

    def clamp(self, x: Any, low: int | None = None, high: int | None = None) -> Any:
        """``x`` limited to ``[low, high]`` (either bound optional)."""
        if self.is_torch:
            return x.clamp(min=low, max=high)
        return np.clip(x, low, high)

    def take_flat(self, x: Any, flat: Any) -> Any:
        """``x.reshape(-1)[flat]`` (numpy's ``take``, the fast gather)."""
        if self.is_torch:
            return x.reshape(-1)[flat]
        return np.take(x.reshape(-1), flat)

    def put_flat(self, x: Any, flat: Any, value: Any) -> None:
        """``x.reshape(-1)[flat] = value`` (``x`` contiguous; numpy's ``put``, the fast scatter)."""
        if self.is_torch:
            x.reshape(-1)[flat] = value
        else:
            np.put(x, flat, value)

    def take_rows(self, table: Any, index: Any) -> Any:
        """``table[index]`` along the first axis (numpy's ``take``)."""
        if self.is_torch:
            return table[index]
        return np.take(table, index, axis=0)

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
