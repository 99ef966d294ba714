package hidden

func NotChecked() {}
