"""Training: MaskablePPO on the Gymnasium face (``lifeline.train.ppo``), shared policy features."""
