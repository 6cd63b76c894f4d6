void main()
{
  gl_FragColor = abs(vec4(0.0, -1.0, 0.0, 1.0));
}

vec4 abs(vec4 unused)
{
  return vec4(1.0, 0.0, 0.0, 1.0);
}
