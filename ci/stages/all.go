package stages

// All returns the stages in order.
func All() []Stage {
	return []Stage{clusterStage{}, kamajiStage{}, tenantsStage{}, workersStage{}, hamiStage{}, gpusStage{}}
}
