"""Segment heat, as in the MemoryOS paper: α·N_visit + β·L_interaction + γ·exp(−Δt/μ)."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class HeatParams:
    alpha: float = 1.0
    beta: float = 1.0
    gamma: float = 1.0
    mu_seconds: float = 1e7
    threshold: float = 5.0


def heat(params: HeatParams, visits: int, interactions: int, seconds_since_visit: float) -> float:
    """Heat of one segment; a visit in the future (clock skew) counts as now."""
    recency = math.exp(-max(0.0, seconds_since_visit) / params.mu_seconds)
    return params.alpha * visits + params.beta * interactions + params.gamma * recency


def is_hot(params: HeatParams, visits: int, interactions: int, seconds_since_visit: float) -> bool:
    return heat(params, visits, interactions, seconds_since_visit) >= params.threshold
