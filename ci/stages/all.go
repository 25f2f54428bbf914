package stages

// All returns the stages in order.
func All() []Stage {
	return []Stage{ClusterStage{}, KamajiStage{}, TenantsStage{}, WorkersStage{}, HAMiStage{}, GPUsStage{}}
}
