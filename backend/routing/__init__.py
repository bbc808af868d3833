"""RDR2 document routing: structure trees, retrieval subtrees, routers and their trajectories."""
