"""Real NVIDIA GPU models and MIG profiles -> Nodes, ResourceSlices and DeviceClasses as the NVIDIA DRA driver publishes them."""
