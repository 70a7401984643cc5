"""A CleanRL-style masked PPO on the batched guesser, ``gymnasium.make_vec`` defaults (replayed-human
cue givers, the flat observation, rewards at the reveal): the whole trainer in one file.

    python examples/ppo_vector.py --minutes 5          # prints points per game as it learns

Why so short: the batched env hands over ``(N, 6021)`` observations, ``(N, 480)`` masks and
``(N,)`` rewards as numpy arrays, and ends/restarts games itself (``infos["final_info"]`` holds
each ended game's learner points), so PPO needs no wrappers.
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np
import torch
from torch import nn

import huesenv  # noqa: F401  (registers the ids)


class Agent(nn.Module):
    def __init__(self, obs_size: int, n_actions: int, hidden: int = 256) -> None:
        super().__init__()
        self.first = nn.Linear(obs_size, hidden)
        self.body = nn.Sequential(nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.pi, self.v = nn.Linear(hidden, n_actions), nn.Linear(hidden, 1)

    def forward(
        self, obs: torch.Tensor, mask: torch.Tensor
    ) -> tuple[torch.distributions.Categorical, torch.Tensor]:
        # the flat observation is > 99 % zeros: its first layer as a sparse product (~100x fewer FLOPs)
        h = self.body(torch.sparse.mm(obs.to_sparse(), self.first.weight.T) + self.first.bias)
        logits = self.pi(h).masked_fill(~mask, -1e9)  # illegal cells never drawn
        return torch.distributions.Categorical(logits=logits), self.v(h).squeeze(-1)


def train(
    minutes: float = 5.0,
    num_envs: int = 256,
    steps: int = 16,
    seed: int = 0,
    updates: int | None = None,
    lr: float = 1e-3,
    gamma: float = 0.99,
    lam: float = 0.95,
    epochs: int = 3,
    minibatches: int = 4,
    clip: float = 0.2,
    threads: int = 1,
    ent: float = 0.01,
) -> list[float]:
    """Train; returns the mean learner points of the games ended in each update."""
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    env = gymnasium.make_vec("huesenv/Guesser-v1", num_envs=num_envs, vectorization_mode="vector_entry_point")
    agent = Agent(env.single_observation_space.shape[0], env.single_action_space.n)
    opt = torch.optim.Adam(agent.parameters(), lr=lr)
    obs_np, _ = env.reset(seed=seed)
    obs, mask = torch.as_tensor(obs_np), torch.as_tensor(env.action_masks())
    buf_obs = torch.zeros((steps, num_envs, obs.shape[1]))
    buf_mask = torch.zeros((steps, num_envs, mask.shape[1]), dtype=torch.bool)
    buf_act, buf_logp, buf_rew, buf_done, buf_val = (torch.zeros((steps, num_envs)) for _ in range(5))
    curve: list[float] = []
    start, update = time.process_time(), 0
    while (updates is None and time.process_time() - start < minutes * 60) or (
        updates is not None and update < updates
    ):
        update += 1
        ended: list[float] = []
        for t in range(steps):  # rollout
            buf_obs[t], buf_mask[t] = obs, mask
            with torch.no_grad():
                dist, value = agent(obs, mask)
                action = dist.sample()
            buf_act[t], buf_logp[t], buf_val[t] = action, dist.log_prob(action), value
            obs_np, reward, term, trunc, info = env.step(action.numpy())
            buf_rew[t], buf_done[t] = (
                torch.as_tensor(reward),
                torch.as_tensor(term | trunc, dtype=torch.float32),
            )
            if "final_info" in info:
                ended += info["final_info"]["learner_points"][info["_final_info"]].tolist()
            obs, mask = torch.as_tensor(obs_np), torch.as_tensor(env.action_masks())
        with torch.no_grad():  # GAE: an ended game's next state is the new game's, cut by done
            next_v = agent(obs, mask)[1]
            adv, last = torch.zeros_like(buf_rew), torch.zeros(num_envs)
            for t in reversed(range(steps)):
                v_next = next_v if t == steps - 1 else buf_val[t + 1]
                live = 1.0 - buf_done[t]
                delta = buf_rew[t] + gamma * v_next * live - buf_val[t]
                adv[t] = last = delta + gamma * lam * live * last
            ret = adv + buf_val
        b_obs, b_mask = buf_obs.reshape(-1, obs.shape[1]), buf_mask.reshape(-1, mask.shape[1])
        b_act, b_logp, b_adv, b_ret = (x.reshape(-1) for x in (buf_act, buf_logp, adv, ret))
        n = b_obs.shape[0]
        for _ in range(epochs):  # PPO update
            for idx in torch.randperm(n).chunk(minibatches):
                dist, value = agent(b_obs[idx], b_mask[idx])
                logp = dist.log_prob(b_act[idx].long())
                ratio = (logp - b_logp[idx]).exp()
                a = b_adv[idx]
                a = (a - a.mean()) / (a.std() + 1e-8)
                pg = -torch.min(ratio * a, ratio.clamp(1 - clip, 1 + clip) * a).mean()
                loss = pg + 0.5 * ((value - b_ret[idx]) ** 2).mean() - ent * dist.entropy().mean()
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                opt.step()
        if ended:
            curve.append(float(np.mean(ended)))
            print(
                f"update {update:4d}  steps {update * steps * num_envs:8d}  cpu {time.process_time() - start:6.0f} s"
                f"  points/game {curve[-1]:.2f} ({len(ended)} games)",
                flush=True,
            )
    return curve


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--minutes", type=float, default=5.0, help="CPU minutes to train")
    p.add_argument("--num-envs", type=int, default=256)
    p.add_argument("--updates", type=int, default=None, help="stop after this many updates instead")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    train(a.minutes, a.num_envs, seed=a.seed, updates=a.updates)
