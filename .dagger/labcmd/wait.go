package labcmd

import (
	"fmt"
	"time"
)

// DindNoticeEvery is how often the module says it is still waiting for the
// Docker-in-Docker service to start.
const DindNoticeEvery = 30 * time.Second

// DindWaitNotice is the line logged while the Docker-in-Docker service has
// not started. Its /var/lib/docker is a Locked cache volume: Dagger v0.21.8
// takes the volume's lock before it starts the service and holds it until
// the service exits (core/service.go, lockMountedCaches in
// core/container_exec.go), so a second run on the same engine blocks there
// without a word until the first one ends.
func DindWaitNotice(elapsed time.Duration) string {
	return fmt.Sprintf("gpu-lab: the Docker-in-Docker service has not started after %s. "+
		"If another gpu-lab run is using this Dagger engine, this run waits for it: the daemon's data root "+
		"(cache volume %s) is Locked and only one daemon may use it at a time; this run goes on when that one ends "+
		"(stop it to go on now). Otherwise the %s image is still being pulled.",
		elapsed.Round(time.Second), DockerCache, DindImage)
}

// NoticeWhileWaiting calls notice with DindWaitNotice on every tick until
// done is closed. Ticks carry the current time; start is when the wait
// began.
func NoticeWhileWaiting(done <-chan struct{}, ticks <-chan time.Time, start time.Time, notice func(string)) {
	for {
		select {
		case <-done:
			return
		case now := <-ticks:
			select {
			case <-done: // the service started at the same moment: say nothing
				return
			default:
			}
			notice(DindWaitNotice(now.Sub(start)))
		}
	}
}
