name = "world"
print(f"hello {name}!", f'{3.14159:.2f}', f"{x=}", f"{{literal}}", rf"\d{n}")
print(f"{a['k']} {b!s:^10} {c:{w}.{p}}" "plain" f'''{d
}''')
