"""Shared type aliases."""

from __future__ import annotations

import os
from typing import Literal, TypeAlias

import numpy as np
import numpy.typing as npt

PathLike: TypeAlias = str | os.PathLike[str]
OnError: TypeAlias = Literal["raise", "warn", "ignore"]

FloatArray: TypeAlias = npt.NDArray[np.float64]
Float32Array: TypeAlias = npt.NDArray[np.float32]
IntArray: TypeAlias = npt.NDArray[np.int64]
Int32Array: TypeAlias = npt.NDArray[np.int32]
Int16Array: TypeAlias = npt.NDArray[np.int16]
UInt16Array: TypeAlias = npt.NDArray[np.uint16]
UInt8Array: TypeAlias = npt.NDArray[np.uint8]
BoolArray: TypeAlias = npt.NDArray[np.bool_]
