import SchedCalendar
print(Instant(seconds: 0).rfc3339)
