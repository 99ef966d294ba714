package sub

func TestUndocumentedIsFine() {}
