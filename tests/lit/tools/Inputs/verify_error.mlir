func.func @wrong_arity(%a: i32) -> i32 {
  func.return
}
