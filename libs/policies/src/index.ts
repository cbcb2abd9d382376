export * from './code-points';
export * from './roles';
export * from './group-settings';
export * from './organization-policy';
export * from './channel-access';
export * from './channel-view';
export * from './realm-policy';
