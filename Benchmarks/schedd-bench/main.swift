import Scheduler
